// Placeholder until scripts/gen-requirement-ids.ts generates the union from spec/requirements.yaml.
export type RequirementId = string;
