// Types of node-version.mjs (plain JavaScript, so that an old Node parses it) for the TypeScript tests.
export declare const SUPPORTED_LINES: ReadonlyArray<{ major: number; minor: number; open: boolean }>;
export declare function enginesRange(): string;
export declare function isSupportedNode(version: string): boolean;
export declare function nodeVersionProblem(version: string): string;
