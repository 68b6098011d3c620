// The Prompt Catalog's public surface: what other dashboard features may import (eslint.config.js).
export { PromptCatalog } from './PromptCatalog.tsx';
