/** The action's entry point (`runs.main: dist/index.js`). */
import { runAction } from "./run-action.js";

await runAction();
