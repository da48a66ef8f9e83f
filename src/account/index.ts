/**
 * src/account's face beside service.ts and graphql.ts: what rest/ uses of its other files. Nothing outside the module
 * imports those files directly (.dependency-cruiser.cjs: module-faces).
 */
export { createApiKeyFields } from './api-key-input.js';
