/**
 * Types of `convert-to-llm/pi`: the extension and `usePlugins` fit pi's own `ExtensionAPI` of both
 * lines (their types are structural, so the package imports nothing from pi), and misuse fails.
 */
import type {
	ExtensionAPI as ExtensionApi1,
	ExtensionFactory as ExtensionFactory1,
} from "@earendil-works/pi-coding-agent";
import type {
	ExtensionAPI as ExtensionApi0,
	ExtensionFactory as ExtensionFactory0,
} from "@mariozechner/pi-coding-agent";
import { describe, expectTypeOf, it } from "vitest";
import type { Plugin } from "../../src/index.js";
import convertToLlmExtension, { type PluginOffer, usePlugins } from "../../src/pi/index.js";

declare const pi1: ExtensionApi1;
declare const pi0: ExtensionApi0;
declare const plugin: Plugin;

describe("convert-to-llm/pi", () => {
	it("should be a pi extension factory on both lines", () => {
		expectTypeOf(convertToLlmExtension).toExtend<ExtensionFactory1>();
		expectTypeOf(convertToLlmExtension).toExtend<ExtensionFactory0>();
	});

	it("should take either line's ExtensionAPI in usePlugins", () => {
		usePlugins(pi1, "my-ext", plugin);
		usePlugins(pi0, "my-ext", plugin, plugin);
		expectTypeOf<PluginOffer["plugins"]>().toEqualTypeOf<readonly Plugin[]>();
	});

	it("should reject what is not a plugin, and a missing extension name", () => {
		// @ts-expect-error: a plugin needs apply(registry)
		usePlugins(pi1, "my-ext", { name: "my-ext:ticket" });
		// @ts-expect-error: the offering extension's name comes first
		usePlugins(pi1, plugin);
		// @ts-expect-error: a value without pi.events
		usePlugins({}, "my-ext", plugin);
	});
});
