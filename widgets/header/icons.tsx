// The header's few icons, inline (no icon font, no requests). Decorative: every control that
// shows one also has a text name.
const Icon = ({ d }: { d: string }) => (
  <svg class="ico" viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
    <path d={d} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
  </svg>
);

export const BellIcon = () => <Icon d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9M10.3 21a1.94 1.94 0 0 0 3.4 0" />;
export const MenuIcon = () => <Icon d="M4 6h16M4 12h16M4 18h16" />;
export const UserIcon = () => <Icon d="M20 21a8 8 0 0 0-16 0M12 13a5 5 0 1 0 0-10 5 5 0 0 0 0 10" />;
export const Chevron = () => <Icon d="m6 9 6 6 6-6" />;
