/** `text` cut to `chars` code points, the last one `…` when cut (a surrogate pair is never split). */
export function clip(text: string, chars: number): string {
  const points = Array.from(text);
  return points.length > chars ? `${points.slice(0, chars - 1).join("")}…` : text;
}
