// The contest a connection follows, named in its WebSocket URL (/ws?contest=ID) so a proxy that hashes on it
// (deploy/nginx.conf: `hash $arg_contest consistent`) brings a table's connections to one process. The query
// grants nothing: the token in the hello decides what the connection may see and do.

// The contest a token opens, read from its claims (a JWT, or an `agon1.` token: `<x>.<claims>.<signature>`,
// the claims unpadded base64url JSON); null when they cannot be read (only the server verifies a token).
export function contestOfToken(token) {
  const claims = typeof token === "string" ? token.split(".")[1] : undefined;
  if (!claims) return null;
  try {
    const base64 = claims.replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const contest = JSON.parse(new TextDecoder().decode(bytes))?.contest;
    return typeof contest === "string" && contest ? contest : null;
  } catch {
    return null;
  }
}

// `url` naming `contest` in its query (`url` as it is without one).
export function affinityUrl(url, contest) {
  return contest ? `${url}?contest=${encodeURIComponent(contest)}` : url;
}
