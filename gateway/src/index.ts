// Programmatic entry: build the gateway in-process (tests, benchmarks, embedding).
export { buildApp, type AppDependencies } from './app.js';
export { loadConfig, ConfigError, type Config } from './config.js';
