import { createContext, useContext, type ReactNode } from "react";

/**
 * The per-request CSP nonce, handed from entry.server to the document. In the browser it is
 * always "" (browsers hide nonce attributes from scripts), which is fine: only the server's
 * HTML needs it.
 */
const NonceContext = createContext("");

export function NonceProvider({ nonce, children }: { nonce: string; children: ReactNode }) {
  return <NonceContext.Provider value={nonce}>{children}</NonceContext.Provider>;
}

export function useNonce() {
  return useContext(NonceContext);
}
