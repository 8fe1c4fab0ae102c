/** The exhaustiveness check every `switch` over a closed union ends in (house style §3). */
export function unreachable(value: never): never {
  throw new Error(`Internal error: unexpected value ${JSON.stringify(value)}`);
}
