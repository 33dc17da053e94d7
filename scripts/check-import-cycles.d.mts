/** file → the files of `dir` it imports or re-exports from (relative specifiers only). */
export function importGraph(dir: string): Map<string, string[]>;
/** The import circles of `graph`, each as the list of files around it. */
export function importCycles(graph: Map<string, string[]>): string[][];
