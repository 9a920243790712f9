// The requirements catalogue (spec/requirements.yaml), loaded once and typed.
import type { Topic } from '../core/model.ts';
import type { RequirementId } from './requirement-ids.ts';
import { readSpecDocument } from './documents.ts';

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

const catalogue = readSpecDocument('requirements.yaml') as Catalogue;

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
