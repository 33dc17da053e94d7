/** The key of a tagged object in an encoded tree. */
export declare const TAG: string;
/** A JSON-safe tree of `value` that `decode` turns back into the same graph. */
export declare function encode(value: unknown): unknown;
/** The value `encode` was given, rebuilt. */
export declare function decode(tree: unknown): unknown;
/** `encode` then `JSON.stringify`. */
export declare function pack(value: unknown): string;
/** `JSON.parse` then `decode`. */
export declare function unpack(text: string): unknown;
