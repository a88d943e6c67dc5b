// Shared by the benchmarks: medians over repeated runs (the machine is shared and noisy) and
// the one JSON line each benchmark prints.
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function report(name, figures, budgets) {
  const within = Object.fromEntries(
    Object.entries(budgets).map(([key, limit]) => [key, figures[key] <= limit]),
  );
  const pass = Object.values(within).every(Boolean);
  console.log(JSON.stringify({ bench: name, ...figures, budgets, within, pass }));
  return pass;
}

/** The line of a benchmark that could not measure: why, and `pass: false`. */
export function reportError(name, error) {
  const why = error instanceof Error ? error.message : String(error);
  console.log(JSON.stringify({ bench: name, error: why, pass: false }));
}
