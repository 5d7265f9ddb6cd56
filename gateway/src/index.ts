export const SERVICE_NAME = 'catalog-gateway';
