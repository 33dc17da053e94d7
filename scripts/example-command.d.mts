/** `[command, args]` that runs `examples/<file>` from the project root `root`. */
export function exampleCommand(root: string, file: string): [string, string[]];
