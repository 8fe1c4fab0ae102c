import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  SAVED_STATE
} from "./index-chunk-3D7L55TK.js";
import "./index-chunk-R2FWSBIE.js";
export {
  SAVED_STATE
};
