// Validates the KEDA objects of the given YAML files (ScaledObject,
// TriggerAuthentication) against the schemas of KEDA's CRDs, which
// kubernetes-validate does not know. Exits 1 on the first invalid object or on a file
// with none of them.
import { readFileSync } from "node:fs";
import yaml from "js-yaml";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { TriggerAuthentication } from "@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication";

const kinds = { ScaledObject, TriggerAuthentication };
let checked = 0;
for (const file of process.argv.slice(2)) {
  for (const doc of yaml.loadAll(readFileSync(file, "utf8"))) {
    if (!doc) continue;
    const Model = kinds[doc.kind];
    if (doc.apiVersion !== "keda.sh/v1alpha1" || !Model) {
      console.error(`${file}: ${doc.apiVersion} ${doc.kind} is not a KEDA object this check knows`);
      process.exit(1);
    }
    try {
      new Model(doc).validate();
    } catch (err) {
      console.error(`${file}: ${doc.kind} ${doc.metadata?.name}: ${err.message}`);
      process.exit(1);
    }
    checked += 1;
    console.log(`${file}: ${doc.kind} ${doc.metadata?.name} is valid`);
  }
}
if (checked === 0) {
  console.error("no KEDA object checked");
  process.exit(1);
}
