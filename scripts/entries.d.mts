export declare const ENTRIES: Readonly<Record<string, string>>;
export declare const BIN_ENTRIES: Readonly<Record<string, string>>;
export declare const TYPE_LINES: readonly { readonly prefix: string; readonly dts: string }[];
export declare function exportsOf(entries?: Readonly<Record<string, string>>): {
	exports: Record<string, unknown>;
	typesVersions: { "*": Record<string, string[]> };
};
