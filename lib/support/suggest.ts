// "Did you mean …?" lives in packages/model/src (packages/model/src/suggest.ts) so that packages/model/src/contract/settings.ts can
// name a mistyped setting without reaching out of the model and contract; re-exported here for the
// command line and infra, which import it from lib/support.
export { closest, didYouMean } from '@ec2-node-reconciler/model/suggest.js';
