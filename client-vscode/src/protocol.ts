/**
 * The agentls protocol (docs/protocol.md): the method names and the types of the requests
 * the extension sends and of the notifications and requests the server sends back.
 *
 * Every type comes from `./generated/protocol`, which is generated from the server's
 * models (`python -m agentls.server.protocol_schema`), so the extension cannot drift from
 * the server. Nothing is declared by hand here.
 */
export {
  ConfirmModeValues,
  Methods,
  PlanStepStatusValues,
  ReviewOutcomeValues,
  RunStateValues,
  RunStatusValues,
  SelfEvalModeValues,
  StepPhaseValues,
} from './generated/protocol';
export type {
  AgentInfo,
  AgentsResult,
  AskUserParams,
  AskUserResult,
  CancelParams,
  CancelResult,
  CheckpointFile,
  CheckpointRun,
  CheckpointsParams,
  CheckpointsResult,
  ClientNotifications,
  ClientRequests,
  ConfirmMode,
  HunkDecision,
  McpServerApprovalParams,
  McpServerApprovalResult,
  PingResult,
  PlanParams,
  PlanStep,
  PlanStepStatus,
  RestoreParams,
  RestoreResult,
  ReviewDecisionParams,
  ReviewOutcome,
  RunParams,
  RunResult,
  RunState,
  RunStatus,
  SelfEvalMode,
  ServerNotifications,
  ServerRequests,
  SessionEntry,
  SessionInfo,
  SessionParams,
  SessionResult,
  SessionsResult,
  StatusParams,
  StepParams,
  StepPhase,
  StreamParams,
  ToolUse,
  Unrestorable,
  Usage,
  WorkspaceTrustParams,
} from './generated/protocol';
