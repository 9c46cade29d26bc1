/** The bare chain's activities: they return at once (bench/bare/workflows.ts). */
export interface BareActivities {
  modelStep(): Promise<void>;
  finishTurn(): Promise<void>;
}

export const bareActivities: BareActivities = {
  modelStep: () => Promise.resolve(),
  finishTurn: () => Promise.resolve(),
};
