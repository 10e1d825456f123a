// Minimal typings for the part of jsdom we use (@types/jsdom is not installed).
declare module 'jsdom' {
  export class VirtualConsole {
    constructor();
  }
  export interface ConstructorOptions {
    url?: string;
    virtualConsole?: VirtualConsole;
  }
  export class JSDOM {
    constructor(html?: string, options?: ConstructorOptions);
    readonly window: Window & typeof globalThis & { close(): void };
  }
}
