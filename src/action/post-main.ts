/** The action's post entry point (`runs.post: dist/post.js`); see ./post.ts. */
import { runPost } from "./post.js";

await runPost(process.env);
