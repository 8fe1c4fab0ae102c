// B7 (issue 16): the model CLI install in the action, warm (tool cache hit) against cold (`npm install` of
// the same pinned version). Not measured: a cold install downloads from the npm registry, which a bench on
// a shared or offline machine must not depend on (README "Performance").
import { notMeasured } from "./lib/row.mjs";

notMeasured(
  "B7",
  "model CLI install, warm vs cold",
  "warm ≤ 2 s",
  "a cold install needs the npm registry (network); not run by the bench",
);
