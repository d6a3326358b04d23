// The product's name, spelled once: the CLI's command, the label and annotation prefix, the
// output events' source, the Kubernetes group and RBAC objects, the metrics' service dimension,
// the Kubernetes Events' component and the API client's user agent all say it.

export const PRODUCT_NAME = 'ec2-node-reconciler';
