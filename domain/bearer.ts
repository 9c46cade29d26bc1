/** The credential of an `Authorization: Bearer <credential>` header, or undefined for any other form. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
}
