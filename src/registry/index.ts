export { createRegistry } from "./create-registry.js";
export type {
	AgentRole,
	ConvertContext,
	Converter,
	ConverterResult,
	ConverterTapOptions,
	CustomRegisterOptions,
	HookContext,
	MessageOfRole,
	Plugin,
	RegisterOptions,
	RegisterOptionsFor,
	Registry,
	RegistryHooks,
	RegistryOptions,
} from "./types.js";
export { Stage } from "./types.js";
