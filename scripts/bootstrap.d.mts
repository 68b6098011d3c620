// Types of scripts/bootstrap.mjs (plain Node, run before anything is installed).
export declare const root: string;
export declare function run(command: string, args: string[], options?: object): number;
export declare function ensureNodeVersion(version?: string): void;
export declare function nodeVersionAdmitted(version: string, range: string): boolean;
export declare function ensureDependencies(): void;
