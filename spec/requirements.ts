// The requirements catalogue (spec/requirements.yaml), loaded once and typed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Topic } from '../core/model.ts';
import type { RequirementId } from './requirement-ids.ts';

export type Level = 'must' | 'should' | 'note';
export type Testability = 'black-box' | 'needs-fixture' | 'needs-fault' | 'not-testable';

export interface Requirement {
  id: RequirementId;
  section: string;
  level: Level;
  text: string;
  testability: Testability;
  topic: Topic;
  /** Every reading the document supports, where it can be read more than one way. */
  readings?: string[];
  /** The position the checker takes where the document says "not shown". */
  assumption?: string;
}

/** A section or subsection of the document ("4.1"), with a title in the project's words. */
export interface Section {
  id: string;
  title: string;
}

interface Catalogue {
  sections: Section[];
  requirements: Requirement[];
}

const file = fileURLToPath(new URL('./requirements.yaml', import.meta.url));

const catalogue = parse(readFileSync(file, 'utf8')) as Catalogue;

export const sections: Section[] = catalogue.sections;

export const requirements: Requirement[] = catalogue.requirements;

const byId = new Map(requirements.map((r) => [r.id as string, r]));

export function requirementById(id: string): Requirement | undefined {
  return byId.get(id);
}

/** The entries of one topic, in catalogue order. */
export function requirementsByTopic(topic: Topic): Requirement[] {
  return requirements.filter((r) => r.topic === topic);
}
