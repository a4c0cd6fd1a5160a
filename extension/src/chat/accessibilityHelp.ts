// "Tandem: Accessibility Help": the chat's keys and how it speaks, in a modal a screen reader
// reads whole (VS Code's own Alt+F1 help is not open to extensions' views).

/** The text of the help, for the platform (`mac`: Cmd instead of Ctrl). */
export function accessibilityHelp(mac: boolean): { message: string; detail: string } {
  const mod = mac ? 'Cmd' : 'Ctrl';
  return {
    message: 'Tandem chat: keys and announcements',
    detail: [
      'In the prompt: Enter sends, Shift+Enter starts a new line, @ attaches a file, a folder (ending in /), @problems, @terminal, @changes or a web page (@https://…) (arrows and Enter or Tab pick one), / opens the commands.',
      `In an editor: ${mod}+I edits the selection (or the line) by your instruction, the change coming back as a diff; ${mod}+Alt+L adds the selection to the chat.`,
      'Escape stops the running turn.',
      `${mod}+Alt+Enter accepts and ${mod}+Alt+Backspace rejects the edit waiting for approval, from the chat or the diff editor.`,
      'Each question (an edit, a command, an MCP tool) has its own buttons, named after what they answer; Tab moves between them.',
      'While a turn runs the transcript is marked busy; when it ends, one announcement says how it ended and reads the start of the answer.',
      'A waiting approval badges the Tandem icon and, while the chat is hidden, shows in the status bar; activate that item to return to the question.',
    ].join('\n\n'),
  };
}
