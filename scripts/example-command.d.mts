/** Whether the example at `path` is written against pi 1.x (imports `@earendil-works/…`). */
export function isPi1Example(path: string): boolean;
/** `[command, args]` that runs `examples/<file>` from the project root `root`. */
export function exampleCommand(root: string, file: string): [string, string[]];
