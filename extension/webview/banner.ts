import type { SidecarState } from '../src/shared/messages';

/** The line above the chat while the sidecar isn't running: why, in its own words, and what to do. */
export function bannerText(sidecar: SidecarState, problem: string | null): string {
  if (sidecar === 'starting') return 'Starting Tandem…';
  if (sidecar !== 'stopped') return '';
  if (problem) return `Tandem’s sidecar stopped: ${problem}. Fix that, then run “Tandem: Restart Sidecar”; the Tandem output has the whole log.`;
  return 'Tandem’s sidecar is not running. Run “Tandem: Restart Sidecar” or check the Tandem output.';
}
