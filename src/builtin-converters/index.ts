/** The built-in plugins of the default preset. */
export { BASH_EXECUTION_PLUGIN, bashExecution, convertBashExecution } from "./bash-execution.js";
export { CUSTOM_PLUGIN, convertCustom, custom } from "./custom.js";
export { MODEL_ROLES, MODEL_ROLES_PLUGIN, modelRoles, passThrough } from "./model-roles.js";
export {
	BRANCH_SUMMARY_PLUGIN,
	branchSummary,
	COMPACTION_SUMMARY_PLUGIN,
	compactionSummary,
	convertBranchSummary,
	convertCompactionSummary,
} from "./summaries.js";
