/** `redactSecrets` as a function over a pi-ai `Message[]`: the call shape beside the plugin. */
import type { Message } from "@earendil-works/pi-ai";
import { modelRoles } from "../builtin-converters/model-roles.js";
import { createRegistry } from "../registry/index.js";
import { type RedactSecretsOptions, redactSecrets } from "./redact-secrets.js";

/**
 * `messages` with every secret replaced, as the `redactSecrets` plugin replaces them in a
 * conversion's output: for a plain pi-ai `Message[]` (a request you build yourself, texts for a
 * report) where no history is converted.
 *
 * Contract: takes the options of `redactSecrets` and runs a fresh plugin on a registry of pi-ai's
 * own roles (`createRegistry().use(modelRoles)`), so placeholders are numbered from 1 in each call;
 * to keep one numbering across calls, `use()` one `redactSecrets()` plugin on a registry and call
 * its `convertAsync`. Never changes `messages`. Rejects, with the problem (a `ConvertToLlmError`),
 * when anything could not be redacted (a message it cannot read, a scanner that fails), rather than
 * resolve with less than every message; throws `InvalidPluginError` for options `redactSecrets`
 * refuses.
 *
 * @example
 * const [message] = await redactMessages([{ role: "user", content: "GITLAB_TOKEN=glpat-…", timestamp: 0 }]);
 * message.content; // "GITLAB_TOKEN=[REDACTED:gitlab-personal-access-token#1]"
 */
export async function redactMessages(
	messages: readonly Message[],
	options: RedactSecretsOptions = {},
): Promise<Message[]> {
	const registry = createRegistry().use(modelRoles).use(redactSecrets(options));
	const { output, problems } = await registry.runAsync(messages);
	const [problem] = problems;
	if (problem !== undefined) throw problem;
	return output;
}
