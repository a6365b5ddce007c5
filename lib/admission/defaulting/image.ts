// The tag of an image reference, as kubernetes pkg/util/parsers ParseImageName reads it for the pull-policy default
// (SetDefaults_Container, SetDefaults_Volume): the reference's tag, "latest" when it has neither tag nor digest, and
// "" when it does not parse (github.com/distribution/reference ParseNormalizedNamed: lower-case path components,
// an optional registry host, `:tag`, `@algorithm:hex`).
const component = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const reference = new RegExp(`^((?:${domain}/)?${component}(?:/${component})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`);
const anchoredHex = /^[a-f0-9]{64}$/;

export function parseImageTag(image: string): string {
  const m = reference.exec(image);
  if (m === null) return '';
  const name = m[1]!;
  // a bare 64-hex "repository" is refused (it reads as an image ID)
  if (anchoredHex.test(name)) return '';
  // the path (without a registry) may not exceed 255 characters
  if (name.length > 255) return '';
  const tag = m[2] ?? '';
  const digest = m[3] ?? '';
  return tag === '' && digest === '' ? 'latest' : tag;
}
