export * from './keyring.js';
export * from './aes-gcm-codec.js';
export * from './data-converter.js';
export * from './server.js';
export * from './plaintext.js';
