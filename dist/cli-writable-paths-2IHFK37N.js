#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  folderWriteProblem,
  gitObjectsProblem,
  outputFileProblem,
  writeFailureProblem
} from "./cli-chunk-FXTLPJ5R.js";
import "./cli-chunk-Q4DFSTE5.js";
import "./cli-chunk-VKCPXAXI.js";
export {
  folderWriteProblem,
  gitObjectsProblem,
  outputFileProblem,
  writeFailureProblem
};
