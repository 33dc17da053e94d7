/**
 * `loadPlugins`: imports each `--plugin` module (a path or a package, from the working directory) within
 * `--timeout` and takes its plugins; whatever a module does, the failure is a `CliError` naming it.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "../registry/types.js";
import { isInstance, isPluginShape, isRecord, settleWithin } from "../values.js";
import { CliError, codeOf, thrownText } from "./cli-error.js";

/** The plugins one `--plugin` module gave. */
export interface LoadedPlugins {
	/** The module as given on the command line. */
	spec: string;
	plugins: Plugin[];
}

const SHAPE =
	'a plugin { name, apply(registry) } or a list of them as its default export (or as a named "plugin" or "plugins" export)';

/**
 * Imports each module and takes its plugins. A path (starting with `.` or `/`, or naming an existing
 * file) resolves from `cwd`; anything else is a package name, resolved from `cwd` too. `onLoad` is
 * told of each module before it is imported; a module that has not loaded within `timeoutMs` (a
 * top-level await that never settles) fails. Whatever a module throws or exports (`null`, a Proxy
 * whose traps throw), the failure is a {@link CliError} naming the module.
 */
export async function loadPlugins(
	specs: readonly string[],
	cwd: string,
	onLoad?: (spec: string) => void,
	timeoutMs?: number,
): Promise<LoadedPlugins[]> {
	const loaded: LoadedPlugins[] = [];
	for (const spec of specs) {
		onLoad?.(spec);
		const imported = importModule(spec, cwd);
		const namespace = await (timeoutMs === undefined ? imported : withDeadline(imported, timeoutMs, spec));
		try {
			loaded.push({ spec, plugins: pluginsOf(namespace, spec) });
		} catch (error) {
			if (isInstance(error, CliError)) throw error;
			throw new CliError(
				`plugin module "${spec}" cannot be read: ${thrownText(error)} (while its exports were read). Fix the module, or leave out --plugin ${spec}.`,
			);
		}
	}
	return loaded;
}

/**
 * `loading`, or a {@link CliError} once `ms` have passed. The timer does not keep the process alive
 * by itself: with nothing else to run, the process ends at once and the CLI says the module never
 * finished loading; with a plugin's timer still running, this one ends the wait.
 */
function withDeadline<T>(loading: Promise<T>, ms: number, spec: string): Promise<T> {
	return settleWithin(
		loading,
		ms,
		() =>
			new CliError(
				`plugin module "${spec}" did not finish loading within ${ms} ms (--timeout): it awaits something that does not settle. Fix the module, leave out --plugin ${spec}, or raise --timeout.`,
			),
		{ unref: true },
	);
}

/**
 * Node's refusals of a TypeScript module: Node 22.18 and later strip types (so a module of erasable
 * syntax loads as it is), but not enums, namespaces or parameter properties, nor files under
 * node_modules; an older Node knows no `.ts` at all.
 */
const TYPESCRIPT_REFUSED: ReadonlySet<string> = new Set([
	"ERR_UNKNOWN_FILE_EXTENSION",
	"ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
	"ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING",
]);

async function importModule(spec: string, cwd: string): Promise<Record<string, unknown>> {
	const url = resolveSpec(spec, cwd);
	try {
		return (await import(url)) as Record<string, unknown>;
	} catch (error) {
		const code = codeOf(error);
		if (TYPESCRIPT_REFUSED.has(code as string) && /\.[cm]?tsx?$/.test(spec)) {
			throw new CliError(
				`cannot load plugin module "${spec}": Node runs TypeScript only by stripping its types, and this module needs more (${thrownText(error)}). Compile it to JavaScript, or run the CLI with a TypeScript loader: node --import tsx node_modules/convert-to-llm/dist/cli.js …`,
			);
		}
		if (code === "ERR_MODULE_NOT_FOUND" && url.startsWith("file:") && !existsSync(new URL(url))) {
			throw new CliError(
				`cannot load plugin module "${spec}": no such file (looked for ${resolve(cwd, spec)}). Check the path; relative paths start from the current directory.`,
			);
		}
		throw new CliError(
			`cannot load plugin module "${spec}": ${thrownText(error)}. Fix the module (or install its dependencies), or leave out --plugin ${spec}.`,
		);
	}
}

function resolveSpec(spec: string, cwd: string): string {
	const path = resolve(cwd, spec);
	if (spec.startsWith(".") || isAbsolute(spec) || existsSync(path)) return pathToFileURL(path).href;
	try {
		// A package name: resolve it from the current directory, not from where the CLI is installed.
		return pathToFileURL(createRequire(join(cwd, "noop.js")).resolve(spec)).href;
	} catch {
		return spec;
	}
}

function pluginsOf(namespace: Record<string, unknown>, spec: string): Plugin[] {
	const exported = namespace.default;
	// A CommonJS module's `module.exports` is the default export: look inside it too.
	const inner = isRecord(exported) && !isPlugin(exported) ? exported : undefined;
	const candidates: [string, unknown][] = [
		["default export", exported],
		['"plugin" export', namespace.plugin ?? inner?.plugin],
		['"plugins" export', namespace.plugins ?? inner?.plugins],
	];
	for (const [what, value] of candidates) {
		if (isPlugin(value)) return [value];
		if (Array.isArray(value)) return checkList(value, `${what} of plugin module "${spec}"`);
	}
	const hint =
		typeof exported === "function"
			? " Its default export is a function: export the plugin it makes instead (export default myPlugin())."
			: "";
	throw new CliError(`plugin module "${spec}" exports no plugin: give it ${SHAPE}.${hint}`);
}

function checkList(list: readonly unknown[], where: string): Plugin[] {
	if (list.length === 0) throw new CliError(`the ${where} is an empty list: put at least one plugin in it.`);
	list.forEach((item, i) => {
		if (!isPlugin(item)) {
			throw new CliError(
				`item ${i} of the ${where} is not a plugin: each item needs a string "name" and an apply(registry) function.`,
			);
		}
	});
	return list as Plugin[];
}

const isPlugin = (value: unknown): value is Plugin => isPluginShape(value);
