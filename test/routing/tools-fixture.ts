import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";

const schema = (properties: Record<string, object>) => ({ type: "object", properties });

/** A small fleet's catalog, as `Switchyard.tools()` would give it: ids are catalog names. */
export const FLEET_TOOLS: ToolDescriptor[] = [
  {
    id: "github_list_issues",
    server: "github",
    name: "list_issues",
    description: "List issues in a repository",
    inputSchema: schema({
      repo: { type: "string", description: "owner/name" },
      state: { type: "string", enum: ["open", "closed"] },
    }),
  },
  {
    id: "github_create_issue",
    server: "github",
    name: "create_issue",
    description: "Open a new issue",
    inputSchema: schema({ repo: { type: "string" }, title: { type: "string" }, body: { type: "string" } }),
  },
  {
    id: "github_get_file_contents",
    server: "github",
    name: "get_file_contents",
    description: "Read a file from a repository",
    inputSchema: schema({ path: { type: "string" } }),
  },
  {
    id: "slack_post_message",
    server: "slack",
    name: "post_message",
    description: "Send a message to a channel",
    inputSchema: schema({ channel: { type: "string" }, text: { type: "string" } }),
  },
  {
    id: "slack_list_channels",
    server: "slack",
    name: "list_channels",
    description: "List the channels of the workspace",
  },
  {
    id: "weather_get_forecast",
    server: "weather",
    name: "get_forecast",
    description: "Weather forecast for a city",
    inputSchema: schema({
      city: { type: "string" },
      units: { type: "string", description: "temperature scale", enum: ["celsius", "fahrenheit"] },
    }),
  },
  {
    id: "weather_get_alerts",
    server: "weather",
    name: "get_alerts",
    description: "Severe weather alerts for a region",
  },
  {
    id: "orders_query_recent_orders",
    server: "orders",
    name: "query_recent_orders",
    description: "A customer's recent orders",
    inputSchema: schema({ customer_id: { type: "string", description: "customer number, e.g. C10001" } }),
  },
  {
    id: "orders_refund_order",
    server: "orders",
    name: "refund_order",
    description: "Refund an order and give the money back",
    inputSchema: schema({ order_id: { type: "string" }, reason: { type: "string" } }),
  },
  {
    id: "orders_track_shipment",
    server: "orders",
    name: "track_shipment",
    description: "Where a parcel is now",
    inputSchema: schema({ order_id: { type: "string" } }),
  },
  {
    id: "fs_read_file",
    server: "fs",
    name: "read_file",
    description: "Read a local file",
    serverDescription: "Local filesystem access under the allowed folders",
  },
  {
    id: "fs_list_directory",
    server: "fs",
    name: "list_directory",
    description: "List a folder",
    serverDescription: "Local filesystem access under the allowed folders",
  },
  {
    id: "shop_query_order_status",
    server: "shop",
    name: "query_order_status",
    description: "查询订单的物流状态和预计送达时间",
    inputSchema: schema({ order_id: { type: "string", description: "订单号" } }),
  },
  {
    id: "shop_update_profile",
    server: "shop",
    name: "update_profile",
    description: "更新用户资料，例如邮箱和手机号",
  },
];
