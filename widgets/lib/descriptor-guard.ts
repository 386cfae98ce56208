// A host page may have added enumerable properties to Object.prototype (`Object.prototype.get =
// ...`: old libraries, careless tag managers). Object.defineProperty reads a descriptor's fields
// through the prototype chain, so a descriptor written as an object literal inherits `get`, `set`
// or `value` from the page: @preact/signals and @preact/signals-core define `value` and `props`
// on their prototypes that way while their modules are evaluated, and threw ("Getter must be a
// function"), which stopped every widget. Evaluating this module makes Object.defineProperty and
// Object.defineProperties read only the descriptors' own fields (copied onto null-prototype
// objects) until restoreDescriptors() is called; widgets/lib/signals.ts brackets the signals
// modules with the two. Module evaluation is synchronous, so no page script runs in between, and
// on an unpolluted page nothing is touched.
const { defineProperty, defineProperties } = Object;
const polluted = ['value', 'writable', 'get', 'set', 'enumerable', 'configurable'].some((field) => field in {});

// Own enumerable fields only: what a descriptor literal has.
const ownFields = (descriptor: PropertyDescriptor): PropertyDescriptor =>
  Object.assign(Object.create(null), descriptor);

if (polluted) {
  Object.defineProperty = (target, key, descriptor) => defineProperty(target, key, ownFields(descriptor));
  Object.defineProperties = (target, descriptors) => {
    for (const key of Object.keys(descriptors)) defineProperty(target, key, ownFields(descriptors[key]));
    return target;
  };
  // Should a signals module throw while it is evaluated, signals.ts never reaches its restore:
  // the page still gets its functions back once this synchronous evaluation is over.
  queueMicrotask(restoreDescriptors);
}

/** Gives the page its own Object.defineProperty and Object.defineProperties back. */
export function restoreDescriptors(): void {
  if (polluted) Object.assign(Object, { defineProperty, defineProperties });
}
