/** For each output message: the index of the input message it is, and of the input whose content array it carries (-1: none). */
export declare function sharing(input: readonly unknown[], output: readonly unknown[]): [number, number][];
/** Freezes `value` and everything reachable from it. */
export declare function deepFreeze<T>(value: T): T;
