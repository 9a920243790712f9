// Paths of section 4, built in one place so no suite spells them differently.
const enc = encodeURIComponent;

export const paths = {
  bulkMessages: (businessId: string) => `/v1/businesses/${enc(businessId)}/sms/bulk-messages`,
  bulkMessage: (businessId: string, bulkId: string) =>
    `/v1/businesses/${enc(businessId)}/sms/bulk-messages/${enc(bulkId)}`,
  bulkRecipients: (businessId: string, bulkId: string) =>
    `/v1/businesses/${enc(businessId)}/sms/bulk-messages/${enc(bulkId)}/messages`,
  message: (businessId: string, messageId: string) => `/v1/businesses/${enc(businessId)}/sms/messages/${enc(messageId)}`,
  walletBalance: (businessId: string) => `/v1/businesses/${enc(businessId)}/wallet/balance`,
  webhookEndpoint: (businessId: string, endpointId: string) =>
    `/v1/businesses/${enc(businessId)}/webhook-endpoints/${enc(endpointId)}`,
};
