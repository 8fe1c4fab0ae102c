import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  SAVED_STATE
} from "./index-chunk-IG3OTDPP.js";
import "./index-chunk-R2FWSBIE.js";
export {
  SAVED_STATE
};
