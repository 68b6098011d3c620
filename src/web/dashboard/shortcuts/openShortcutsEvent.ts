// The window event that opens the dashboard's "Keyboard shortcuts" dialog (the Account menu's
// entry fires it). A module of its own: the top bar is on every page, so what it imports loads
// with the landing page, and the shortcut list itself belongs to the dashboard's code only.
export const OPEN_SHORTCUTS_EVENT = 'openShortcuts';
