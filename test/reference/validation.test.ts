// 4.1 body rules and 4.0 path parameters: every bad request refused, field by field.
import { describe, expect, it } from 'vitest';
import { RANDOM_V7, freshKey, messageBody, templateBody, useReference, type Reply } from './helpers.ts';

const h = useReference();
const counts = () => h.control('GET', '/state/counts');
function refused(r: Reply, pointer?: string) {
  expect(r.status).toBe(400);
  expect(r.json.code).toBe('validation_failed');
  if (pointer !== undefined) expect(r.json.errors.map((e: any) => e.pointer)).toContain(pointer);
}
const raw = (body: string | undefined, contentType = 'application/json') =>
  h.call('POST', h.paths.bulks(h.b), { body, headers: { 'content-type': contentType, 'idempotency-key': freshKey() } });

describe('body', () => {
  it('refuses a missing body [VAL-BODY-REQUIRED]', async () => refused(await raw(undefined)));
  it('refuses malformed JSON [VAL-MALFORMED-JSON]', async () => refused(await raw('{"from": "AcmeAlerts",')));

  it('refuses a JSON body sent as another media type [VAL-CONTENT-TYPE]', async () => {
    refused(await raw(JSON.stringify(messageBody(h)), 'text/plain'));
    expect((await raw(JSON.stringify(messageBody(h)), 'application/json; charset=utf-8')).status).toBe(202);
  });

  it('refuses unknown members and missing from, classification or recipients [VAL-BODY-FIELDS]', async () => {
    refused(await h.submit(messageBody(h, { priority: 'high' })), '/priority');
    for (const field of ['from', 'classification', 'recipients']) {
      const body = messageBody(h);
      delete body[field];
      refused(await h.submit(body), `/${field}`);
    }
  });

  it('refuses an empty and a 21-character from, accepts 20 known characters as shape [VAL-FROM-LENGTH]', async () => {
    refused(await h.submit(messageBody(h, { from: '' })), '/from');
    refused(await h.submit(messageBody(h, { from: 'S'.repeat(21) })), '/from');
    expect((await h.submit(messageBody(h, { from: 'S'.repeat(20) }))).status).toBe(403);
  });

  it('refuses an unauthorized sender with 403 sender_not_authorized, nothing accepted [VAL-SENDER-AUTHORIZED]', async () => {
    const before = (await counts()).bulkMessages;
    for (const from of [h.f.unauthorizedSenderId, h.ref.extras.otherBusinessSenderId, 'NeverHeardOf']) {
      const r = await h.submit(messageBody(h, { from }));
      expect(r.status).toBe(403);
      expect(r.json.code).toBe('sender_not_authorized');
    }
    expect((await counts()).bulkMessages).toBe(before);
  });

  it('refuses a classification outside the enum [VAL-CLASSIFICATION-ENUM]', async () => {
    refused(await h.submit(messageBody(h, { classification: 'marketing' })), '/classification');
  });

  it('accepts 4096 characters and refuses 0 and 4097 [VAL-MESSAGE-LENGTH]', async () => {
    expect((await h.submit(messageBody(h, { message: 'm'.repeat(4096) }))).status).toBe(202);
    refused(await h.submit(messageBody(h, { message: '' })), '/message');
    refused(await h.submit(messageBody(h, { message: 'm'.repeat(4097) })), '/message');
  });

  it('refuses both or neither of message and template_id [VAL-EXACTLY-ONE-CONTENT]', async () => {
    refused(await h.submit(messageBody(h, { template_id: h.f.templateId })));
    const neither = messageBody(h);
    delete neither.message;
    refused(await h.submit(neither));
  });

  it('refuses a template_id that is not a UUIDv7 [VAL-TEMPLATE-ID-FORMAT]', async () => {
    refused(await h.submit(templateBody(h, { template_id: 'c1b3a0a4-6f8e-4d6b-9a51-2f0a3c8e9d11' })), '/template_id');
    refused(await h.submit(templateBody(h, { template_id: 'tmpl_1' })), '/template_id');
  });

  it('answers a well-formed unknown template and another business\'s template with 400 (reference choice) [VAL-TEMPLATE-UNKNOWN]', async () => {
    refused(await h.submit(templateBody(h, { template_id: RANDOM_V7 })), '/template_id');
    refused(await h.submit(templateBody(h, { template_id: h.ref.extras.otherBusinessTemplateId })), '/template_id');
  });

  it('refuses an archived template with 422 template_not_active [VAL-TEMPLATE-ACTIVE]', async () => {
    const r = await h.submit(templateBody(h, { template_id: h.f.inactiveTemplateId }));
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('template_not_active');
  });

  it('refuses a variable the template does not have [VAL-TEMPLATE-VARIABLES]', async () => {
    const body = templateBody(h);
    (body.recipients as any[])[0].template_variables = { ...(body.recipients as any[])[0].template_variables, coupon: 'X' };
    refused(await h.submit(body), '/recipients/0/template_variables/coupon');
    expect((await h.submit(templateBody(h))).status).toBe(202);
  });

  it('accepts 512-character variable values and refuses 513 or non-strings [VAL-TEMPLATE-VARIABLE-LENGTH]', async () => {
    const withValue = (v: unknown) => {
      const body = templateBody(h);
      for (const r of body.recipients as any[]) r.template_variables[h.f.templatePlaceholders[0]!] = v;
      return body;
    };
    expect((await h.submit(withValue('v'.repeat(512)))).status).toBe(202);
    refused(await h.submit(withValue('v'.repeat(513))), `/recipients/0/template_variables/${h.f.templatePlaceholders[0]}`);
    refused(await h.submit(withValue(7)));
  });

  it('refuses recipient entries without to or with another member [VAL-RECIPIENT-ITEM-FIELDS]', async () => {
    refused(await h.submit(messageBody(h, { recipients: [{ phone: h.f.recipients[0] }] })), '/recipients/0/to');
    refused(await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[0], name: 'Ada' }] })), '/recipients/0/name');
  });

  it('never treats a non-E.164 number as a valid recipient (400 with pointer, reference reading) [VAL-INVALID-RECIPIENT]', async () => {
    for (const to of ['447700900123', '+0447700900', '+1234567', '+1234567890123456', '+44 7700 900123']) {
      refused(await h.submit(messageBody(h, { recipients: [{ to: h.f.recipients[0] }, { to }] })), '/recipients/1/to');
    }
  });
});

describe('path parameters', () => {
  it('never answers a non-UUIDv7 path value with 2xx or 5xx [VAL-PATH-UUIDV7]', async () => {
    const bad = 'not-a-uuid';
    const replies = [
      await h.call('GET', h.paths.wallet(bad)),
      await h.call('GET', h.paths.bulk(h.b, bad)),
      await h.call('GET', h.paths.rows(h.b, bad)),
      await h.call('GET', h.paths.message(h.b, bad)),
      await h.call('DELETE', h.paths.webhook(h.b, bad)),
    ];
    expect(replies.map((r) => r.status)).toEqual([403, 404, 404, 404, 404]);
  });
});

describe('no side effects', () => {
  it('creates no bulk for any refused submission [VAL-NOTHING-ACCEPTED-ON-REJECTION]', async () => {
    const before = await counts();
    await h.submit(messageBody(h, { classification: 'x' }));
    await h.submit(messageBody(h, { from: h.f.unauthorizedSenderId }));
    await h.submit(templateBody(h, { template_id: h.f.inactiveTemplateId }));
    await h.submit(messageBody(h, {}, 1001));
    await h.call('POST', h.paths.bulks(h.b), { json: messageBody(h) });
    const after = await counts();
    expect(after.bulkMessages).toBe(before.bulkMessages);
    expect(after.recipientRows).toBe(before.recipientRows);
  });
});
