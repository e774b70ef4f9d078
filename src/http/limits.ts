export const ONE_MIB = 1024 * 1024;
/** the two bulk routes: catalog import and printshop SKU groups */
export const BULK_BODY_LIMIT = 16 * ONE_MIB;
/** editor projects: designs carry inline images */
export const PROJECT_BODY_LIMIT = 25 * ONE_MIB;
