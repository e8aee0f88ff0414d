/**
 * The brokerage's Web API (OAuth 2.0) as a typed library, beside eca/ (the XML service): authentication
 * (`private_key_jwt`, tokens kept and renewed), signed bodies, typed answers. No Temporal here.
 */
export * from './errors.js';
export * from './jwt.js';
export * from './oauth.js';
export * from './client.js';
export * from './pages.js';
export * from './schemas.js';
export * from './application.js';
export * from './maintenance.js';
