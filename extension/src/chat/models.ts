// Which model to use once the endpoint's list is known. Pure.

/**
 * Keeps `current` when the endpoint lists it (Ollama lists `name:latest` for `name`); otherwise
 * the endpoint's first model, `replaced` when a model was named and is not offered there. An
 * empty list (the endpoint can't list) keeps `current`.
 */
export function reconcileModel(listed: readonly string[], current: string | null): { model: string | null; replaced: boolean } {
  if (listed.length === 0) return { model: current, replaced: false };
  if (current !== null && (listed.includes(current) || listed.includes(`${current}:latest`))) {
    return { model: current, replaced: false };
  }
  return { model: listed[0] ?? null, replaced: current !== null };
}
