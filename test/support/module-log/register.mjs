/** `node --import ./register.mjs …`: logs each module the process resolves (see ./hooks.mjs). */
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
