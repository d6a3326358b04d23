// "Did you mean …?" lives in lib/model (lib/model/suggest.ts) so that lib/contract/settings.ts can
// name a mistyped setting without reaching out of the model and contract; re-exported here for the
// command line and infra, which import it from lib/support.
export { closest, didYouMean } from '../model/suggest.js';
