/**
 * A pi extension for the end-to-end tests: a buggy or hostile extension that offers convert-to-llm
 * a plugin adding a tapable interceptor which throws on every call (no converter guard catches it).
 */
import { usePlugins } from "convert-to-llm/pi";

/** @param {import("@earendil-works/pi-coding-agent").ExtensionAPI} pi */
export default function interceptorExtension(pi) {
	usePlugins(pi, "test:interceptor", {
		name: "test:interceptor",
		apply(registry) {
			registry.hooks.afterConvert.intercept({
				call() {
					throw new Error("interceptor boom");
				},
			});
			registry.hooks.afterConvert.tap("test:interceptor", (messages) => messages);
		},
	});
}
