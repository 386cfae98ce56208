/**
 * The svc blocks in the editor. Plain JavaScript on WordPress's globals, no build step.
 * Each block's controls come from the plugin's widget table (window.svcWidgets, printed by
 * includes/blocks.php); its preview is the server's rendering (ServerSideRender), which the
 * widget loader enqueued in the editor turns into the live widget.
 */
(function (wp, widgets) {
  'use strict';
  var el = wp.element.createElement;
  var useState = wp.element.useState;
  var useEffect = wp.element.useEffect;
  var __ = wp.i18n.__;
  var InspectorControls = wp.blockEditor.InspectorControls;
  var useBlockProps = wp.blockEditor.useBlockProps;
  var c = wp.components;
  var ServerSideRender = wp.serverSideRender;

  var LANDMARK_LABELS = {
    none: __("Inside the theme's header or footer (no landmark of its own)", 'svc'),
    own: __('Its own landmark (only where no header/footer element wraps it)', 'svc'),
  };
  var MODE_LABELS = { inline: __('The form in the page', 'svc'), button: __('A button opening the form', 'svc') };

  // One request per editor session: every RSVP and donate block shares the list.
  var eventsRequest;
  function useEvents() {
    var state = useState(null);
    useEffect(function () {
      eventsRequest =
        eventsRequest ||
        wp.apiFetch({ path: '/svc/v1/events' }).catch(function (error) {
          eventsRequest = undefined;
          throw error;
        });
      var live = true;
      eventsRequest.then(
        function (events) {
          if (live) state[1]({ events: events });
        },
        function (error) {
          if (live) state[1]({ error: (error && error.message) || __('The events could not be loaded.', 'svc') });
        },
      );
      return function () {
        live = false;
      };
    }, []);
    return state[0];
  }

  function EventPicker(props) {
    var loaded = useEvents();
    if (loaded && loaded.error) {
      return el(c.TextControl, {
        label: props.label,
        value: props.value,
        help: loaded.error + ' ' + __('Type the event slug.', 'svc'),
        onChange: props.onChange,
      });
    }
    var options = [{ value: '', label: loaded ? __('— Choose an event —', 'svc') : __('Loading events…', 'svc') }];
    var known = false;
    ((loaded && loaded.events) || []).forEach(function (event) {
      known = known || event.slug === props.value;
      var when = event.startDate
        ? ' (' + event.startDate.slice(0, 10) + (event.past ? ', ' + __('past', 'svc') : '') + ')'
        : '';
      options.push({ value: event.slug, label: event.name + when });
    });
    if (props.value && !known) options.push({ value: props.value, label: props.value });
    return el(c.SelectControl, { label: props.label, value: props.value, options: options, onChange: props.onChange });
  }

  function control(key, spec, attributes, setAttributes) {
    var value = attributes[key];
    var set = function (next) {
      var change = {};
      change[key] = next;
      setAttributes(change);
    };
    var common = { key: key, label: spec.label };
    if (spec.type === 'integer') {
      return el(
        c.RangeControl,
        Object.assign(common, {
          value: value,
          min: spec.min,
          max: spec.max,
          onChange: set,
          allowReset: true,
          resetFallbackValue: spec['default'],
        }),
      );
    }
    if (spec.type === 'boolean') {
      return el(c.ToggleControl, Object.assign(common, { checked: !!value, onChange: set }));
    }
    if (spec.type === 'enum') {
      var labels = key === 'landmarks' ? LANDMARK_LABELS : key === 'mode' ? MODE_LABELS : {};
      return el(
        c.SelectControl,
        Object.assign(common, {
          value: value,
          options: spec.values.map(function (v) {
            return { value: v, label: labels[v] || v };
          }),
          onChange: set,
        }),
      );
    }
    if (spec.picker === 'events') {
      return el(EventPicker, Object.assign(common, { value: value || '', onChange: set }));
    }
    return el(c.TextControl, Object.assign(common, { value: value || '', onChange: set }));
  }

  Object.keys(widgets).forEach(function (name) {
    var widget = widgets[name];
    wp.blocks.registerBlockType('svc/' + name, {
      edit: function (props) {
        var controls = Object.keys(widget.attributes).map(function (key) {
          return control(key, widget.attributes[key], props.attributes, props.setAttributes);
        });
        return el(
          'div',
          useBlockProps(),
          el(InspectorControls, null, el(c.PanelBody, { title: widget.title }, controls)),
          el(ServerSideRender, {
            block: 'svc/' + name,
            attributes: props.attributes,
            EmptyResponsePlaceholder: function () {
              return el(c.Placeholder, {
                label: widget.title,
                instructions: __('Nothing to show: is the site connected in Settings → svc?', 'svc'),
              });
            },
          }),
        );
      },
      // Dynamic: the post keeps only the block comment; the server renders it on every view.
      save: function () {
        return null;
      },
    });
  });
})(window.wp, window.svcWidgets);
