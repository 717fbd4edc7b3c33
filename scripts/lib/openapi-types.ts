import path from 'node:path';
import openapiTS, { astToString, OpenAPI3 } from 'openapi-typescript';
import { openApiDocument } from '../../apps/api/openapi';

/** Where the typed client's types live (test/helpers/client.ts uses them). */
export const OPENAPI_TYPES_FILE = path.resolve(__dirname, '../../test/helpers/openapi-types.ts');

const HEADER = `/**
 * Generated from the OpenAPI document (apps/api/openapi.ts, served at GET /openapi.json) by
 * \`npm run openapi:types\` with openapi-typescript. Do not edit: regenerate after changing an
 * endpoint; test/api/openapi.test.ts fails while this file is stale.
 */
`;

/** The TypeScript types of the document, built without a server. */
export async function generateOpenApiTypes(): Promise<string> {
  const doc = structuredClone(openApiDocument()) as unknown as OpenAPI3;
  const ast = await openapiTS(doc, { silent: true });
  return HEADER + astToString(ast);
}
