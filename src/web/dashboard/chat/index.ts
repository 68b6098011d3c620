// The assistant feature's public surface: what other dashboard features may import (eslint.config.js).
export { useAttachToChat } from './chatAttachment.ts';
