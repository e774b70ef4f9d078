// The package's ES module build carries no type file of its own; its types are the
// package's main ones (the CommonJS entry, which an ES module cannot import by name).
declare module 'maxrects-packer/dist/maxrects-packer.mjs' {
  export * from 'maxrects-packer/dist/index.js';
}
