// The AdmissionConfiguration the tests point the daemon and the CLI at.
/** An AdmissionConfiguration with one policy plugin reading `dir`. */
export function admissionConfigYAML(dir: string, plugin: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy' = 'ValidatingAdmissionPolicy'): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ${plugin}
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ${plugin}Configuration, staticManifestsDir: ${dir}}
`;
}
