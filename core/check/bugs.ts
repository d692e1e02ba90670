export * from '../util/bugs.js';
